// What a rule's targets select: pure functions over table and attribute names (what a strategy does to the
// selected values is src/masking/strategies.ts's).

/** A rule's targets: `*`, `<table>.*` or `<table>.<attribute>` (checked when the rule was stored). */
export interface TargetSelection {
  /** The whole table (every attribute and file of its entities) is selected. */
  selectsTable(table: string): boolean;
  /** At least one attribute of the table is selected (the table's entities are concerned). */
  concernsTable(table: string): boolean;
  selectsAttribute(table: string, attribute: string): boolean;
}

export function parseTargets(targets: readonly string[]): TargetSelection {
  const everything = targets.includes('*');
  const wholeTables = new Set<string>();
  const attributes = new Map<string, Set<string>>();
  for (const target of targets) {
    const dot = target.indexOf('.');
    if (dot < 0) continue;
    const table = target.slice(0, dot);
    const attribute = target.slice(dot + 1);
    if (attribute === '*') wholeTables.add(table);
    else attributes.set(table, (attributes.get(table) ?? new Set()).add(attribute));
  }
  const selectsTable = (table: string) => everything || wholeTables.has(table);
  return {
    selectsTable,
    concernsTable: (table) => selectsTable(table) || attributes.has(table),
    selectsAttribute: (table, attribute) =>
      selectsTable(table) || (attributes.get(table)?.has(attribute) ?? false),
  };
}

/** The union of several rules' targets, as one selection. */
export function unionOfTargets(selections: readonly TargetSelection[]): TargetSelection {
  return {
    selectsTable: (table) => selections.some((selection) => selection.selectsTable(table)),
    concernsTable: (table) => selections.some((selection) => selection.concernsTable(table)),
    selectsAttribute: (table, attribute) =>
      selections.some((selection) => selection.selectsAttribute(table, attribute)),
  };
}

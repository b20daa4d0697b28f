// Counts the imports that run back up between the folders of src/, and the circles between its files, from
// the TypeScript import graph (the compiler's own scanner, ts.preProcessFile: type-only imports count, as a
// reader of the folder sees them). A room is a folder right under src/ (src/privacy-requests/, with its
// subfolders) or a file right under it (src/services.ts). Rooms stand on floors, each above what it imports;
// where rooms import each other in a knot, some arrow must run back up whatever the order, and this script
// finds the order with the fewest: that minimum is the figure (docs/architecture.md; issue 36 bounds it).
// test/lint/folder-imports.test.ts fails above the bound. Run: `node scripts/folder-imports.ts`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
export const SOURCE = path.join(ROOT, 'src');
/** Above this many rooms in one knot the exact search is too dear; the order found greedily is an upper bound. */
const EXACT_KNOT_LIMIT = 24;

export interface BackUp {
  from: string;
  to: string;
  /** Each import of the arrow, file -> file (relative to src/). */
  imports: string[];
}

export interface FolderImports {
  rooms: number;
  arrows: number;
  backUp: BackUp[];
  /** The imports the arrows running back up carry. */
  backUpImports: number;
  /** Knots of files that import each other (each one a list of files). */
  circles: string[][];
  /** False when a knot was too large for the exact search (the count is then an upper bound). */
  exact: boolean;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The relative imports of `file` that name a file of src/ (resolved as Node does with .ts extensions). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.flatMap(({ fileName }) => {
    if (!fileName.startsWith('.')) return [];
    const target = path.resolve(path.dirname(file), fileName);
    return known.has(target) ? [target] : [];
  });
}

function roomOf(file: string, source: string): string {
  const [first, ...rest] = path.relative(source, file).split(path.sep);
  return rest.length > 0 ? `${first}/` : (first as string);
}

/** Tarjan's strongly connected components of a graph given as adjacency lists. */
function knots<Node>(nodes: readonly Node[], next: (node: Node) => Iterable<Node>): Node[][] {
  const index = new Map<Node, number>();
  const low = new Map<Node, number>();
  const stack: Node[] = [];
  const onStack = new Set<Node>();
  const found: Node[][] = [];
  let counter = 0;
  const visit = (node: Node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const other of next(node)) {
      if (!index.has(other)) {
        visit(other);
        low.set(node, Math.min(low.get(node) as number, low.get(other) as number));
      } else if (onStack.has(other)) {
        low.set(node, Math.min(low.get(node) as number, index.get(other) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const knot: Node[] = [];
      let member: Node;
      do {
        member = stack.pop() as Node;
        onStack.delete(member);
        knot.push(member);
      } while (member !== node);
      found.push(knot);
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

/**
 * The order of a knot's rooms, ground first, with the fewest arrows from a lower room to a higher one:
 * exact by dynamic programming over the sets of rooms placed so far (2^n states), greedy above the limit.
 */
function bestOrder(size: number, imports: (from: number, to: number) => boolean): number[] {
  const importersOf = Array.from({ length: size }, (_, to) => {
    let mask = 0;
    for (let from = 0; from < size; from++) if (from !== to && imports(from, to)) mask |= 1 << from;
    return mask;
  });
  if (size > EXACT_KNOT_LIMIT) return improvedOrder(size, importersOf);
  const states = 1 << size;
  const cost = new Uint16Array(states).fill(0xffff);
  const last = new Uint8Array(states);
  cost[0] = 0;
  for (let placed = 0; placed < states; placed++) {
    const base = cost[placed] as number;
    if (base === 0xffff) continue;
    for (let room = 0; room < size; room++) {
      if (placed & (1 << room)) continue;
      // Placing `room` above the placed ones: every placed room that imports it points back up.
      const total = base + popcount(placed & importersOf[room]!);
      const next = placed | (1 << room);
      if (total < (cost[next] as number)) {
        cost[next] = total;
        last[next] = room;
      }
    }
  }
  const order: number[] = [];
  for (let placed = states - 1; placed !== 0; placed &= ~(1 << (last[placed] as number))) {
    order.unshift(last[placed] as number);
  }
  return order;
}

/** Arrows running back up in `order` (ground first): a lower room importing a higher one. */
function costOf(order: readonly number[], importersOf: readonly number[]): number {
  let placed = 0;
  let cost = 0;
  for (const room of order) {
    cost += popcount(placed & (importersOf[room] as number));
    placed |= 1 << room;
  }
  return cost;
}

/**
 * For a knot too large for the exact search: Eades, Lin and Smyth's greedy order (a room that no unplaced
 * room imports goes to the top, one that imports no unplaced room to the ground, else the one most imported
 * and least importing goes to the top), then each room moved to the floor that lowers the count, until none does.
 */
function improvedOrder(size: number, importersOf: readonly number[]): number[] {
  const importsOf = Array.from({ length: size }, (_, from) =>
    importersOf.reduce((mask, importers, to) => (importers & (1 << from) ? mask | (1 << to) : mask), 0),
  );
  let left = (1 << size) - 1;
  const ground: number[] = [];
  const top: number[] = [];
  while (left !== 0) {
    const rooms = [...Array(size).keys()].filter((room) => left & (1 << room));
    const sink = rooms.find((room) => ((importsOf[room] as number) & left) === 0);
    const source = rooms.find((room) => ((importersOf[room] as number) & left) === 0);
    const chosen =
      sink ??
      source ??
      rooms.reduce((best, room) => {
        const score = (r: number) =>
          popcount((importersOf[r] as number) & left) - popcount((importsOf[r] as number) & left);
        return score(room) < score(best) ? room : best;
      });
    if (sink !== undefined) ground.push(chosen);
    else top.unshift(chosen);
    left &= ~(1 << chosen);
  }
  let order = [...ground, ...top];
  let cost = costOf(order, importersOf);
  for (let improved = true; improved;) {
    improved = false;
    for (let from = 0; from < size; from++) {
      for (let to = 0; to < size; to++) {
        if (from === to) continue;
        const moved = [...order];
        moved.splice(to, 0, ...moved.splice(from, 1));
        const movedCost = costOf(moved, importersOf);
        if (movedCost < cost) [order, cost, improved] = [moved, movedCost, true];
      }
    }
  }
  return order;
}

function popcount(value: number): number {
  let count = 0;
  for (let rest = value; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}

export function countFolderImports(source = SOURCE): FolderImports {
  const files = sourceFiles(source);
  const known = new Set(files);
  const fileImports = new Map(files.map((file) => [file, importsOf(file, known)]));
  const arrows = new Map<string, Map<string, string[]>>();
  for (const [file, targets] of fileImports) {
    for (const target of targets) {
      const [from, to] = [roomOf(file, source), roomOf(target, source)];
      if (from === to) continue;
      const outgoing = arrows.get(from) ?? new Map<string, string[]>();
      const named = `${path.relative(source, file)} -> ${path.relative(source, target)}`;
      outgoing.set(to, [...(outgoing.get(to) ?? []), named]);
      arrows.set(from, outgoing);
    }
  }
  const rooms = [...new Set(files.map((file) => roomOf(file, source)))].sort();
  const backUp: BackUp[] = [];
  let exact = true;
  for (const knot of knots(rooms, (room) => arrows.get(room)?.keys() ?? [])) {
    if (knot.length < 2) continue;
    knot.sort();
    exact &&= knot.length <= EXACT_KNOT_LIMIT;
    const order = bestOrder(knot.length, (from, to) => arrows.get(knot[from]!)?.has(knot[to]!) ?? false);
    const floor = new Map(order.map((room, position) => [knot[room]!, position]));
    for (const from of knot) {
      for (const [to, imports] of arrows.get(from) ?? []) {
        if (floor.has(to) && (floor.get(from) as number) < (floor.get(to) as number))
          backUp.push({ from, to, imports });
      }
    }
  }
  const circles = knots(files, (file) => fileImports.get(file) ?? [])
    .filter((knot) => knot.length > 1)
    .map((knot) => knot.map((file) => path.relative(source, file)).sort());
  return {
    rooms: rooms.length,
    arrows: [...arrows.values()].reduce((sum, outgoing) => sum + outgoing.size, 0),
    backUp: backUp.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
    backUpImports: backUp.reduce((sum, arrow) => sum + arrow.imports.length, 0),
    circles,
    exact,
  };
}

if (import.meta.main) {
  const counted = countFolderImports();
  for (const arrow of counted.backUp) {
    process.stdout.write(`${arrow.from} -> ${arrow.to} (${arrow.imports.length})\n`);
    for (const named of arrow.imports) process.stdout.write(`    ${named}\n`);
  }
  for (const circle of counted.circles) process.stdout.write(`circle: ${circle.join(' -> ')}\n`);
  process.stdout.write(
    `${counted.rooms} rooms, ${counted.arrows} arrows; ${counted.backUp.length} run back up ` +
      `(${counted.backUpImports} imports)${counted.exact ? '' : ' at most'}; ${counted.circles.length} circles\n`,
  );
}

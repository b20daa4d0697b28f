// What a rule run reports: per datastore, the access package written and the erasure done. The request's
// completion message and the access delivery read these; the rule runner writes them.

export interface AccessDatastoreSummary {
  datastore: string;
  /** Entities found by the identities, with their descendants. */
  matched_entities: number;
  /** Entities, attributes and files the targets put into the package. */
  entities: number;
  attributes: number;
  files: number;
}

export interface AccessPackageSummary {
  storage_destination_key: string;
  rule_keys: string[];
  /** Size of the stored (sealed) package file. */
  bytes: number;
  /** True when a rerun kept the package of an earlier run because erasure had already begun. */
  reused: boolean;
  datastores: AccessDatastoreSummary[];
}

export interface ErasureSummary {
  rule_key: string;
  strategy: string;
  datastore: string;
  matched_entities: number;
  /** Entities of the matched trees whose tables the rule's targets concern. */
  entities_targeted: number;
  attributes_masked: number;
  attributes_deleted: number;
  files_deleted: number;
  entities_forgotten: number;
  /** True when an earlier run of the request had already committed this erasure; nothing was changed. */
  already_applied: boolean;
}

export interface RuleRunSummary {
  privacy_request_id: string;
  policy_key: string;
  datastores: string[];
  access: AccessPackageSummary[];
  erasure: ErasureSummary[];
  /** What a consent rule recorded: how many identities, and one entry per identity and data use. */
  consent?: { identities: number; preferences_recorded: number };
  /** What an update rule wrote: how many values, over every datastore. */
  corrections?: { values_written: number };
}

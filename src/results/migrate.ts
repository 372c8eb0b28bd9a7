/**
 * Versioned documents: older versions are migrated, step by step, before validation, so a file
 * written by an older Medalist stays readable. Each document kind lists its steps; a step turns
 * version n into n + 1 and must not look at anything but the document.
 */
export type Json = Record<string, unknown>;

export interface Migration {
  /** The version this step reads; it writes from + 1. */
  from: number;
  /** One line for `medalist migrate`: what changed. */
  change: string;
  up(doc: Json): Json;
}

export interface DocumentKind {
  name: string;
  current: number;
  /** Version of a document that carries none (written before versions were recorded). */
  unversioned: number;
  migrations: Migration[];
  /** Reads the version field (absent → unversioned). */
  versionOf(doc: Json): unknown;
}

export class MigrationError extends Error {}

export interface Migrated {
  doc: Json;
  from: number;
  /** The changes applied, oldest first (empty when the document was current). */
  applied: string[];
}

/** Brings a document to the current version of its kind; throws MigrationError for unknown versions. */
export function migrate(kind: DocumentKind, raw: unknown): Migrated {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new MigrationError(`not a ${kind.name} document (a JSON object expected)`);
  let doc = raw as Json;
  const v = kind.versionOf(doc);
  const from = v === undefined ? kind.unversioned : v;
  if (typeof from !== "number" || !Number.isInteger(from) || from < 1)
    throw new MigrationError(`${kind.name}: schemaVersion ${JSON.stringify(v)} is not a version number`);
  if (from > kind.current)
    throw new MigrationError(
      `${kind.name}: schemaVersion ${from} is newer than this Medalist reads (${kind.current}); upgrade Medalist`,
    );
  const applied: string[] = [];
  for (let at = from; at < kind.current; at++) {
    const step = kind.migrations.find((m) => m.from === at);
    if (!step) throw new MigrationError(`${kind.name}: no migration from version ${at}`);
    doc = step.up(doc);
    applied.push(`v${at} → v${at + 1}: ${step.change}`);
  }
  return { doc, from, applied };
}

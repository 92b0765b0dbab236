// The layer table of ARCHITECTURE.md ("The parts and their arrows"), read as data: each row names one or
// more parts (a folder such as `store/`, or a file at the top of src/ such as `app.ts`) and the parts
// they may import. The document is the one place the rule is written; the test only reads it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const ARCHITECTURE_MD = resolve(import.meta.dirname, '../../ARCHITECTURE.md');

/** Part → the other parts it may import (a part may always import itself). */
export type LayerTable = ReadonlyMap<string, ReadonlySet<string>>;

const HEADER = /^\|\s*Part\s*\|\s*May import\s*\|/;
const CODE = /`([^`]+)`/g;

function namesIn(cell: string): string[] {
  return [...cell.matchAll(CODE)].map((match) => match[1]!);
}

function cellsOf(row: string): string[] {
  // Cells hold no escaped pipes: the first two are lists of code names, the third is prose.
  return row
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

/** Reads the first table whose header is `| Part | May import | …`; throws when there is none or a row is malformed. */
export function parseLayerTable(markdown: string): LayerTable {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => HEADER.test(line));
  if (start === -1) throw new Error('no "| Part | May import |" table');
  const table = new Map<string, Set<string>>();
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    const [partCell = '', allowedCell = ''] = cellsOf(lines[i]!);
    const parts = namesIn(partCell);
    if (parts.length === 0) throw new Error(`row ${i + 1} names no part: ${lines[i]}`);
    const allowed = new Set(namesIn(allowedCell));
    if (allowed.size === 0 && allowedCell !== 'nothing')
      throw new Error(`row ${i + 1}: write "nothing" when a part imports no other part`);
    for (const part of parts) {
      if (table.has(part)) throw new Error(`${part} has two rows`);
      table.set(part, allowed);
    }
  }
  return table;
}

export function readLayerTable(): LayerTable {
  return parseLayerTable(readFileSync(ARCHITECTURE_MD, 'utf8'));
}

// Thrown when a config cannot be used: carries every problem, and says them one per line.
import { formatProblem, type ConfigProblem } from './config-problem.ts';

export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  /** The file the problems are in, when there is one. */
  readonly file: string | undefined;

  constructor(problems: readonly ConfigProblem[], file?: string) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super([`invalid configuration${file ? ` in ${file}` : ''} (${count}):`, ...problems.map(formatProblem)].join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
    this.file = file;
  }
}

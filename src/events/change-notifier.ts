// A wake-up signal shared by the processes of one deployment: "the outbox has new rows, read it".
// It carries no events; readers always take them from the outbox, so a lost signal only delays them.
// Either Redis pub/sub (redis-notifier.ts) or the database's own signal at commit, which has the same
// shape (store/commit-signal.ts): a hint, when the signal has one, names the row (`<seq> <event id>`),
// so a process can tell its own commits from the others'.
import type { CommitListener, CommitWake } from '../store/commit-signal.ts';

/** Called on every signal and after a reconnection. */
export type Wake = CommitWake;

export type ChangeNotifier = CommitListener;

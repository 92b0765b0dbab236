// A wake-up signal shared by the processes of one deployment: "the outbox has new rows, read it".
// It carries no events; readers always take them from the outbox, so a lost signal only delays them.

/**
 * Called on every signal and after a reconnection. `hint`, when the signal has one, names the row
 * (PostgreSQL: `<seq> <event id>`), so a process can tell its own commits from the others'.
 */
export type Wake = (hint?: string) => void;

export interface ChangeNotifier {
  /** Starts listening; `wake` is called on every signal and after a reconnection. */
  start(wake: Wake): Promise<void>;
  close(): Promise<void>;
}

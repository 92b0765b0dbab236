// A wake-up signal shared by the processes of one deployment: "the outbox has new rows, read it".
// It carries no events; readers always take them from the outbox, so a lost signal only delays them.

export interface ChangeNotifier {
  /** Starts listening; `wake` is called on every signal and after a reconnection. */
  start(wake: () => void): Promise<void>;
  close(): Promise<void>;
}

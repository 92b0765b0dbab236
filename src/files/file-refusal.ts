// Why an upload was refused; http/ gives each its status and the field's pointer.
export type FileRefusalReason = 'too-large' | 'type-not-accepted';

export class FileRefusal extends Error {
  constructor(
    readonly reason: FileRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'FileRefusal';
  }
}

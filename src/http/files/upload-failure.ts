// An upload's refusal as the client reads it: 413 or 415 pointing at the field it was sent for.
import { ApiError } from '../../errors/api-error.ts';
import { attributePointer } from '../server/domain-error-answer.ts';
import { FileRefusal } from '../../files/file-refusal.ts';

export function uploadFailure(error: unknown, field: string): unknown {
  if (!(error instanceof FileRefusal)) return error;
  const detail = `'${field}': ${error.message}`;
  return error.reason === 'too-large'
    ? new ApiError('PAYLOAD_TOO_LARGE', { detail, pointer: attributePointer(field) })
    : new ApiError('UNSUPPORTED_MEDIA_TYPE', { detail, pointer: attributePointer(field) });
}

// Bounds on a multipart/form-data body's shape; the size of each file is its field's maxSize, counted
// while it streams (files/receive-upload.ts), so busboy's own file limit is left open.
export function multipartLimits(bodyLimitBytes: number) {
  return {
    fieldNameSize: 100,
    fieldSize: bodyLimitBytes,
    fields: 1000,
    files: 100,
    parts: 1100,
    headerPairs: 100,
    fileSize: Number.MAX_SAFE_INTEGER,
  };
}

// The logical storage kinds a field type maps to; each dialect decides the column type and encoding.
export type StorageKind = 'text' | 'integer' | 'real' | 'boolean' | 'timestamp' | 'date' | 'json';

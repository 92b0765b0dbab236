// A record's attributes as the service handles them: decoded from storage, validated from a request,
// carried in events and matched by in-memory filters.
export type RecordValues = Record<string, unknown>;

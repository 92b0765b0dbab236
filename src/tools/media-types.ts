// The JSON:API media type, which the routes answer with and the OpenAPI document declares.
export const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';

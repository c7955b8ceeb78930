import { stubDialect } from './stub.js';

export const xaiResponses = stubDialect('xai-responses');

import { stubDialect } from './stub.js';

export const openaiResponses = stubDialect('openai-responses');

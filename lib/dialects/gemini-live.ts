import { stubDialect } from './stub.js';

export const geminiLive = stubDialect('gemini-live');

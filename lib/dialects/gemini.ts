import { stubDialect } from './stub.js';

export const gemini = stubDialect('gemini');

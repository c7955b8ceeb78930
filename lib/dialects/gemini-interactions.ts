import { stubDialect } from './stub.js';

export const geminiInteractions = stubDialect('gemini-interactions');

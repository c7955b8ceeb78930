import { stubDialect } from './stub.js';

export const openaiRealtime = stubDialect('openai-realtime');

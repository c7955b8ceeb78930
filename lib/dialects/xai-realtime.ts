import { stubDialect } from './stub.js';

export const xaiRealtime = stubDialect('xai-realtime');

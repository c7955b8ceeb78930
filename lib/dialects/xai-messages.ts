import { stubDialect } from './stub.js';

export const xaiMessages = stubDialect('xai-messages');

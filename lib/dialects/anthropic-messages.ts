import { stubDialect } from './stub.js';

export const anthropicMessages = stubDialect('anthropic-messages');

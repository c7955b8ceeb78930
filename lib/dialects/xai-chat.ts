import { stubDialect } from './stub.js';

export const xaiChat = stubDialect('xai-chat');

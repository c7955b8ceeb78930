import { stubDialect } from './stub.js';

export const openaiChat = stubDialect('openai-chat');

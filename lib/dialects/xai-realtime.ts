/** xAI realtime (`wss://api.x.ai/v1/realtime`): OpenAI's Realtime vocabulary, same mapping. */
import { realtimeDialect } from './openai-realtime.js';

export const xaiRealtime = realtimeDialect('xai-realtime');

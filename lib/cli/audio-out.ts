/**
 * --audio-out <dir>: writes each response's audio (audio_delta events, base64
 * decoded) to its own file. A pass-through stage so the fused pipeline stays one.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { UnifiedEvent } from '../events.js';
import type { Stage } from '../stage.js';

const EXTENSIONS: Record<string, string> = {
  'audio/pcm': 'pcm',
  'audio/l16': 'pcm',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/webm': 'webm',
  'audio/g711_ulaw': 'ulaw',
  'audio/g711_alaw': 'alaw',
};

function extensionOf(mimeType: string | null): string {
  if (mimeType === null) return 'bin';
  const base = mimeType.split(';')[0]!.trim().toLowerCase();
  return EXTENSIONS[base] ?? 'bin';
}

export interface AudioWriter extends Stage<UnifiedEvent, UnifiedEvent> {
  /** Paths written so far. */
  readonly files: string[];
}

export function createAudioWriter(dir: string, prefix: string): AudioWriter {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  let responseNo = 0;
  let responseId: string | null = null;
  let fd: number | null = null;

  function close(): void {
    if (fd !== null) closeSync(fd);
    fd = null;
  }

  return {
    push(ev, emit) {
      if (ev.type === 'start') {
        close();
        responseNo++;
        responseId = ev.id;
      } else if (ev.type === 'audio_delta' && ev.choice === undefined) {
        if (fd === null) {
          const id = responseId === null || responseId === '' ? '' : `-${responseId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80)}`;
          const path = join(dir, `${prefix}-${String(Math.max(responseNo, 1)).padStart(3, '0')}${id}.${extensionOf(ev.mimeType)}`);
          fd = openSync(path, 'w');
          files.push(path);
        }
        writeSync(fd, Buffer.from(ev.data, 'base64'));
      } else if (ev.type === 'done' && ev.choice === undefined) {
        close();
      }
      emit(ev);
    },
    end() {
      close();
    },
    get files() {
      return files;
    },
  };
}

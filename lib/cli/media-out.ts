/**
 * --audio-out <dir> and --files-out <dir>: write what a response carries as
 * base64 to files of their own. Pass-through stages, so the fused pipeline
 * stays one.
 * - audio: each response's audio_delta events (choice 0), decoded into one
 *   file per response;
 * - files: each completed `file` event (a generated image, an inlineData
 *   part) into one file each; partial previews are not written.
 * Names: `<prefix>-<response number>[-<response id>][-<file number>].<ext>`,
 * so the files of one input sort in stream order.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
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
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/json': 'json',
};

function extensionOf(mimeType: string | null): string {
  if (mimeType === null) return 'bin';
  const base = mimeType.split(';')[0]!.trim().toLowerCase();
  return EXTENSIONS[base] ?? 'bin';
}

export interface MediaWriter extends Stage<UnifiedEvent, UnifiedEvent> {
  /** Paths written so far. */
  readonly files: string[];
}

/** Numbers the responses of one input and names their files. */
class ResponseNames {
  private responseNo = 0;
  private responseId: string | null = null;

  constructor(
    private readonly dir: string,
    private readonly prefix: string,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  start(id: string | null): void {
    this.responseNo++;
    this.responseId = id;
  }

  path(mimeType: string | null, fileNo?: number): string {
    const id = this.responseId;
    const idPart = id === null || id === '' ? '' : `-${id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80)}`;
    const filePart = fileNo === undefined ? '' : `-${String(fileNo).padStart(2, '0')}`;
    const name = `${this.prefix}-${String(Math.max(this.responseNo, 1)).padStart(3, '0')}${idPart}${filePart}.${extensionOf(mimeType)}`;
    return join(this.dir, name);
  }
}

export function createAudioWriter(dir: string, prefix: string): MediaWriter {
  const names = new ResponseNames(dir, prefix);
  const files: string[] = [];
  let fd: number | null = null;

  function close(): void {
    if (fd !== null) closeSync(fd);
    fd = null;
  }

  return {
    push(ev, emit) {
      if (ev.type === 'start') {
        close();
        names.start(ev.id);
      } else if (ev.type === 'audio_delta' && ev.choice === undefined) {
        if (fd === null) {
          const path = names.path(ev.mimeType);
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

export function createFileWriter(dir: string, prefix: string): MediaWriter {
  const names = new ResponseNames(dir, prefix);
  const files: string[] = [];
  let fileNo = 0;
  return {
    push(ev, emit) {
      if (ev.type === 'start') {
        names.start(ev.id);
        fileNo = 0;
      } else if (ev.type === 'file' && ev.partial !== true) {
        const path = names.path(ev.mimeType, ++fileNo);
        writeFileSync(path, Buffer.from(ev.data, 'base64'));
        files.push(path);
      }
      emit(ev);
    },
    end() {},
    get files() {
      return files;
    },
  };
}

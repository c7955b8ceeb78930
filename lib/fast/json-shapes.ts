/**
 * Which frame texts are valid JSON without parsing them: the separate
 * decoder() stage's fast path (lazy-stages.ts). A shape is learned from a
 * payload the decoder has just parsed: a template (template.ts) whose every
 * value is `free`, so it matches exactly the texts with the same keys in the
 * same order and values of the same JSON types and shapes, and a text it
 * matches is valid JSON (the template grammar's promise).
 */
import type { JsonObject } from '../events.js';
import { LearnedTemplates, MAX_TEMPLATE_TEXT, TemplateBuilder } from './template.js';

export class JsonShapes {
  private readonly learned = new LearnedTemplates<RegExp>();

  /** True when `text` is one of the learned shapes (so valid JSON, an object). */
  valid(text: string): boolean {
    if (text.length > MAX_TEMPLATE_TEXT) return false;
    const list = this.learned.list;
    for (let i = 0; i < list.length; i++) {
      if (list[i]!.test(text)) {
        this.learned.hit(i);
        return true;
      }
    }
    return false;
  }

  /** `payload` was parsed from `text` (which no shape matched): learn its shape. */
  learn(payload: JsonObject, text: string): void {
    if (!this.learned.learning || text.length > MAX_TEMPLATE_TEXT) return;
    const template = new TemplateBuilder(0).free(payload).build();
    if (template === null || !template.re.test(text)) this.learned.miss();
    else this.learned.add(template.re);
  }
}

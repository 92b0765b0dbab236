// Thumbnails of image files: made with sharp the first time a size is asked for, then kept in storage
// next to their file (under its derived prefix, so they go when the file goes). Only the sizes the field
// lists may be made, so a client cannot fill storage or burn CPU with sizes of its choosing.
import type { Readable } from 'node:stream';
import type { FieldDefinition } from '../config/config-types.ts';
import type { FileMetadata } from '../resources/field-types/file-metadata.ts';
import { loadSharp } from '../tools/optional-packages.ts';
import { derivedPrefix, type FileOwner } from './file-keys.ts';
import type { ByteRange, FileStorage, StoredObject } from './storage/file-storage.ts';

/** Types sharp reads safely; SVG is left out (it would be rendered, with what it references). */
const THUMB_SOURCES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
]);
/** Thumbnails keep their source's format where a browser shows it, else PNG. */
const KEPT_FORMATS: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
/** About 40 megapixels: a decompression bomb is refused instead of decoded. */
const MAX_INPUT_PIXELS = 40_000_000;

export interface ThumbSize {
  readonly width: number;
  readonly height: number;
}

/** Why a thumbnail was not made: `size` not configured, `source` not an image sharp may read. */
export class ThumbRefusal extends Error {
  constructor(
    readonly reason: 'size' | 'source' | 'image',
    message: string,
  ) {
    super(message);
  }
}

/** The size a request asks for, if the field lists it (the config schema checks the form). */
export function configuredThumb(field: FieldDefinition, asked: string): ThumbSize | undefined {
  if (!(field.thumbs ?? []).includes(asked)) return undefined;
  const [width, height] = asked.split('x').map(Number) as [number, number];
  if (width === 0 && height === 0) return undefined;
  return { width, height };
}

export function thumbKey(owner: FileOwner, file: Pick<FileMetadata, 'id'>, size: ThumbSize): string {
  return `${derivedPrefix(owner, file)}thumb-${size.width}x${size.height}`;
}

export function thumbType(file: Pick<FileMetadata, 'type'>): string {
  return KEPT_FORMATS.has(file.type) ? file.type : 'image/png';
}

/**
 * The stored thumbnail (made now if it is not yet), or undefined when the source is not in storage.
 * Two first requests at once both make it; the second write replaces the first with the same bytes.
 */
export async function ensureThumb(
  storage: FileStorage,
  source: () => Promise<Readable | undefined>,
  owner: FileOwner,
  file: FileMetadata,
  size: ThumbSize,
): Promise<StoredObject | undefined> {
  if (!THUMB_SOURCES.has(file.type)) throw new ThumbRefusal('source', `A ${file.type} file has no thumbnails`);
  const key = thumbKey(owner, file, size);
  const stored = await storage.head(key);
  if (stored) return stored;
  const bytes = await source();
  if (!bytes) return undefined;
  const sharp = loadSharp();
  const type = thumbType(file);
  const resize = sharp({ limitInputPixels: MAX_INPUT_PIXELS, animated: false })
    .rotate()
    .resize({
      ...(size.width > 0 ? { width: size.width } : {}),
      ...(size.height > 0 ? { height: size.height } : {}),
      // Both sides given: the image fills the box, cropped around its centre; one side: the ratio is kept.
      fit: 'cover',
      withoutEnlargement: true,
    })
    .toFormat(type === 'image/png' ? 'png' : (type.slice('image/'.length) as 'jpeg' | 'webp' | 'gif'));
  let imageFailed = false;
  resize.once('error', () => {
    imageFailed = true;
  });
  bytes.once('error', (error) => resize.destroy(error));
  try {
    await storage.put(key, bytes.pipe(resize), type);
  } catch (error) {
    bytes.destroy();
    // sharp's own failure (a corrupt or oversized image) is the file's fault, not the service's.
    if (imageFailed) throw new ThumbRefusal('image', 'The image could not be read to make a thumbnail');
    throw error;
  }
  return storage.head(key);
}

export function openThumb(
  storage: FileStorage,
  owner: FileOwner,
  file: FileMetadata,
  size: ThumbSize,
  range?: ByteRange,
): Promise<Readable | undefined> {
  return storage.get(thumbKey(owner, file, size), range);
}

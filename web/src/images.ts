// Images attached to a turn on the page (issue 27 §3): picked with the file input or pasted into
// the prompt, read as base64 for `POST /v1/sessions/{id}/turns` `images`. The server checks the
// bytes again (PNG, JPEG, GIF or WebP, at most 10 MiB); these checks name the file before upload.

/** Largest image the server accepts, decoded (10 MiB). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** The media types the model is given. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** One image as the turn route takes it. */
export interface ImageUpload {
  name: string;
  media_type: string;
  data: string;
}

/** Why a file was not attached: its name and the catalogue id of the reason. */
export interface ImageRefusal {
  name: string;
  reason: "image-wrong-type" | "image-too-large";
}

/** Standard base64 of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** A file as an upload, or why it is refused (type by the browser's reading, size). */
export function checkImage(name: string, type: string, size: number): ImageRefusal | undefined {
  if (!(IMAGE_TYPES as readonly string[]).includes(type)) return { name, reason: "image-wrong-type" };
  if (size > MAX_IMAGE_BYTES) return { name, reason: "image-too-large" };
  return undefined;
}

/** Reads `file` as an upload. */
export async function readImage(file: File): Promise<ImageUpload> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { name: file.name || "pasted image", media_type: file.type, data: toBase64(bytes) };
}

import { describe, expect, it } from "vitest";
import { checkImage, MAX_IMAGE_BYTES, toBase64 } from "../src/images";

describe("image uploads", () => {
  it("encodes bytes as standard base64", () => {
    expect(toBase64(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe("iVBORw==");
    expect(toBase64(new Uint8Array(70000).fill(65)).length).toBe(93336);
  });

  it("refuses other types and images over 10 MiB, naming the file", () => {
    expect(checkImage("a.png", "image/png", 10)).toBeUndefined();
    expect(checkImage("b.webp", "image/webp", MAX_IMAGE_BYTES)).toBeUndefined();
    expect(checkImage("c.bmp", "image/bmp", 10)).toEqual({ name: "c.bmp", reason: "image-wrong-type" });
    expect(checkImage("d.jpg", "image/jpeg", MAX_IMAGE_BYTES + 1)).toEqual({ name: "d.jpg", reason: "image-too-large" });
  });
});

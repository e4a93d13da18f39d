import { useId } from "react";
import { useI18n } from "../i18n";
import { checkImage, readImage, type ImageUpload } from "../images";

/** Adds the image files among `files` to `images`; the refused ones are named through `onError`. */
export async function addImages(
  files: Iterable<File>,
  images: ImageUpload[],
  onChange: (images: ImageUpload[]) => void,
  onError: (message: string) => void,
  t: (id: string, args?: Record<string, string | number>) => string,
): Promise<void> {
  const added: ImageUpload[] = [];
  for (const file of files) {
    const refused = checkImage(file.name, file.type, file.size);
    if (refused) {
      onError(t(refused.reason, { name: refused.name }));
      continue;
    }
    added.push(await readImage(file));
  }
  if (added.length > 0) onChange([...images, ...added]);
}

/** The prompt's image upload: a file input (PNG, JPEG, GIF, WebP) and the attached images, each removable. */
export function ImageAttach(props: {
  images: ImageUpload[];
  onChange(images: ImageUpload[]): void;
  onError(message: string): void;
  disabled?: boolean;
  testId: string;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    <div className="image-attach" data-testid={props.testId}>
      <label htmlFor={id}>{t("image-attach")}</label>
      <input
        id={id}
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        multiple
        disabled={props.disabled}
        data-testid={`${props.testId}-input`}
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = "";
          void addImages(files, props.images, props.onChange, props.onError, t);
        }}
      />
      {props.images.length > 0 && (
        <ul className="attached-images" aria-label={t("images-attached")}>
          {props.images.map((image, i) => (
            <li key={`${image.name}-${i}`} data-testid="attached-image">
              {image.name}{" "}
              <button
                type="button"
                aria-label={t("image-remove", { name: image.name })}
                onClick={() => props.onChange(props.images.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

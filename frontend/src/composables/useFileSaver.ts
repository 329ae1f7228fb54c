import { saveBlob } from "@/model/fileSave";
import { useApiStore } from "@/stores/api";

async function toBase64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Save a file the UI made (a diagram, an artifact): a download in a browser; the desktop window
 * cannot download, so there the backend saves it into Downloads (`files.save_download`).
 * Resolves to where it went (the file name, or the saved path).
 */
export function useFileSaver(): (blob: Blob, filename: string) => Promise<string> {
  const api = useApiStore();
  return async (blob, filename) => {
    if (api.transport?.kind !== "pywebview") {
      saveBlob(blob, filename);
      return filename;
    }
    const out = await api.invoke("files.save_download", { filename, content: await toBase64(blob), base64: true });
    return out.saved_path;
  };
}

import { ref } from "vue";
import type { Ref } from "vue";
import { ApiError } from "@/api/transport";
import { errorMessage, useApiStore } from "@/stores/api";

/**
 * "Choose folder…": the window opens the system's folder dialog; a browser page cannot see the
 * user's folders, so there the button explains to type the path and puts the cursor in the field
 * (issue 41) instead of sitting disabled with a tooltip nobody reads.
 */
export function useFolderPick(path: Ref<string>, input: Ref<HTMLInputElement | null>) {
  const api = useApiStore();
  const typeHint = ref(false);
  const error = ref("");

  async function pick(): Promise<void> {
    error.value = "";
    if (api.transport?.kind !== "pywebview") {
      typeHint.value = true;
      input.value?.focus();
      return;
    }
    try {
      const picked = await api.invoke("desktop.pick_folder", {});
      if (picked.path) path.value = picked.path;
    } catch (err) {
      if (err instanceof ApiError && err.code === "unsupported") {
        typeHint.value = true;
        input.value?.focus();
      } else error.value = errorMessage(err);
    }
  }

  return { pick, typeHint, error };
}

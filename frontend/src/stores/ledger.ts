import { defineStore } from "pinia";
import { ref } from "vue";
import type { GrantView } from "@/api/generated";
import { useApiStore } from "./api";

/** The approvals ledger: standing "Always allow" grants. */
export const useLedgerStore = defineStore("ledger", () => {
  const api = useApiStore();
  const grants = ref<GrantView[]>([]);
  const loaded = ref(false);

  async function load(): Promise<void> {
    grants.value = (await api.invoke("approvals.list", {})).grants;
    loaded.value = true;
  }

  async function revoke(grantId: string): Promise<void> {
    await api.invoke("approvals.revoke", { grant_id: grantId });
    grants.value = grants.value.filter((g) => g.id !== grantId);
  }

  /** Imported grants arrive disabled; the user enables each one here. */
  async function enable(grantId: string): Promise<void> {
    await api.invoke("approvals.enable", { grant_id: grantId });
    grants.value = grants.value.map((g) => (g.id === grantId ? { ...g, enabled: true } : g));
  }

  return { grants, loaded, load, revoke, enable };
});

import { describe, expect, it } from "vitest";
import ErrorBanner from "@/components/common/ErrorBanner.vue";
import { mountWith } from "./mount";

describe("ErrorBanner", () => {
  it("heads a database_busy error as the database being busy (issue 24 item 2)", async () => {
    const message = "The database is busy: another program is using CashCode's data right now.";
    const { wrapper } = await mountWith(ErrorBanner, { props: { error: { code: "database_busy", message, retry_after_s: null } } });
    const banner = wrapper.get('[data-testid="error-banner"]');
    expect(banner.attributes("data-code")).toBe("database_busy");
    expect(banner.text()).toContain("The database is busy");
    expect(banner.text()).toContain(message);
    expect(banner.text()).not.toContain("Something went wrong");
  });
});

/**
 * Password sign-in and an invitation in Chromium (issue 12 item 4): the forms as a person uses them
 * (typing, Enter), the password manager hints (autocomplete), axe clean, no script error.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { inviteOp, setPasswordOp } from "../../src/db/account-ops.js";
import { addMemberOp, createWorkspaceOp } from "../../src/db/admin-ops.js";
import { screenshot, seriousViolations, webAndBrowser } from "./browser.js";

const web = webAndBrowser(120_000);
const cli = () => ({ actor: { kind: "cli" as const }, now: new Date() });

beforeAll(async () => {
  await addMemberOp(web.server.database, cli(), { username: "paula", role: "editor" });
  await createWorkspaceOp(web.server.database, cli(), { slug: "lab", name: "The lab" });
  await addMemberOp(web.server.database, cli(), { username: "paula", role: "admin", workspace: "lab" });
  await setPasswordOp(web.server.database, cli(), { username: "paula", password: "paula's long password" });
}, 120_000);

describe("password sign-in in Chromium", () => {
  it("refuses a wrong password, signs in with the right one, chooses the workspace, switches, signs out", async () => {
    const page = await web.browser.newPage();
    await page.goto(`${web.server.url}/tree`);
    expect(new URL(page.url()).pathname).toBe("/signin");
    expect(await page.getAttribute("#login", "autocomplete")).toBe("username");
    expect(await page.getAttribute("#password", "autocomplete")).toBe("current-password");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "signin-password");

    await page.fill("#login", "paula");
    await page.fill("#password", "not the password");
    await Promise.all([page.waitForLoadState("load"), page.press("#password", "Enter")]);
    expect(await page.textContent("[role=alert]")).toContain("wrong username or password");
    expect(await page.inputValue("#login")).toBe("paula");
    expect(await page.inputValue("#password")).toBe("");

    await page.fill("#password", "paula's long password");
    await Promise.all([page.waitForURL(/\/workspaces\?next=%2Ftree$/), page.press("#password", "Enter")]);
    expect(await page.textContent("main")).toContain("The lab (lab)");
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all([page.waitForURL(/\/tree$/), page.click("button:has-text('The lab (lab)')")]);
    expect(await page.textContent("header .who")).toContain("lab");
    expect(await page.textContent("header .who")).toContain("admin");
    // Admin in the lab: the audit log is in the navigation.
    expect(await page.textContent("header nav")).toContain("Audit log");

    await page.click("header .who a[href='/workspaces']");
    await Promise.all([page.waitForURL(/\/tree$|\/$/), page.click("button:has-text('default')")]);
    expect(await page.textContent("header .who")).toContain("editor");
    expect(await page.textContent("header nav")).not.toContain("Audit log");

    await Promise.all([page.waitForURL(/\/signin$/), page.click("text=Sign out")]);
    await page.goto(`${web.server.url}/`);
    expect(new URL(page.url()).pathname).toBe("/signin");
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
  }, 120_000);

  it("an invitation link: choose a username and password, land signed in with the invited role", async () => {
    const invite = await inviteOp(web.server.database, cli(), { email: "quinn@example.com", role: "viewer" });
    const page = await web.browser.newPage();
    await page.goto(`${web.server.url}${invite.path}`);
    expect(await page.textContent("main h1")).toContain("Join");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "invitation");
    await page.fill("#username", "quinn");
    await page.fill("#password", "quinn's new password");
    await page.fill("#confirm", "quinn's new password");
    await Promise.all([page.waitForURL((url) => url.pathname === "/"), page.press("#confirm", "Enter")]);
    expect(await page.textContent("header .who")).toContain("quinn");
    expect(await page.textContent("header .who")).toContain("viewer");
    // The link is used up.
    await page.goto(`${web.server.url}${invite.path}`);
    expect(await page.textContent("main")).toContain("already used");
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
  }, 120_000);
});

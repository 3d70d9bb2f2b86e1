/**
 * A browser-less client of the web app over real HTTP: a cookie jar, sign-in with a token, GET pages and
 * POST forms with the CSRF token of the last page seen. For the session, CSRF and role tests; the browser
 * tests use test/web/browser.ts. Reusable: keep this interface stable.
 */

import { nodeAssets } from "../../src/web/node-assets.js";
import { type HostedOptions, type HostedServer, startHosted } from "../helpers/hosted.js";

export interface WebReply {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  /** The `_csrf` value of the last page that had a form. */
  csrf = "";
  /** Every Set-Cookie header seen, raw (for attribute checks). */
  readonly setCookies: string[] = [];

  constructor(readonly baseUrl: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(method: string, path: string, form?: Record<string, string>): Promise<WebReply> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    let body: string | undefined;
    if (form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(form).toString();
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(";");
      const eq = (pair ?? "").indexOf("=");
      const name = (pair ?? "").slice(0, eq).trim();
      const value = (pair ?? "").slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const csrf = /name="_csrf" value="([^"]*)"/.exec(text);
    if (csrf?.[1]) this.csrf = csrf[1];
    return { status: res.status, headers: res.headers, text, location: res.headers.get("location") };
  }

  get(path: string): Promise<WebReply> {
    return this.request("GET", path);
  }

  /** POSTs `form` with this client's current CSRF token (unless the form sets `_csrf` itself). */
  post(path: string, form: Record<string, string> = {}): Promise<WebReply> {
    return this.request("POST", path, { _csrf: this.csrf, ...form });
  }

  /** Signs in with `token`; throws unless the app accepted it (303 to `/`). */
  async signIn(token: string): Promise<void> {
    await this.get("/signin");
    const reply = await this.post("/signin", { token, next: "/" });
    if (reply.status !== 303 || reply.location !== "/") {
      throw new Error(`sign-in failed: ${reply.status} ${reply.text.slice(0, 300)}`);
    }
    await this.get("/");
  }
}

/** The real app over real HTTP with the Node asset handler (the web app as `npm start` serves it). */
export function startWebServer(options: HostedOptions = {}): Promise<HostedServer> {
  return startHosted({ ...options, deps: { assets: nodeAssets(), ...options.deps } });
}

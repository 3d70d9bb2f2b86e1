/** The part of oidc-provider (a test-only OpenID provider, no types of its own) the OIDC tests use. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  export default class Provider {
    constructor(
      issuer: string,
      configuration: {
        clients: Record<string, unknown>[];
        claims?: Record<string, string[]>;
        findAccount(ctx: unknown, id: string): Promise<Account | undefined>;
        features?: Record<string, unknown>;
      },
    );
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}

/** `estate serve` following `principals.json`: what a serving mode does when it changed. */
import type { Principal } from "../../mod.ts";
import type { EstatePrincipal } from "../store/mod.ts";

/** What the serving mode does when `principals.json` changed (set once the mode is known). */
export interface PrincipalWatch {
  changed: () => void;
}

/** A principal as the server sees it: without description, token or hash. */
export function principalOnly(p: EstatePrincipal): Principal {
  return {
    id: p.id,
    scopes: [...p.scopes],
    tenant: p.tenant,
    clearance: p.clearance,
  };
}

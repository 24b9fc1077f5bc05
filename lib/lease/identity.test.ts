import { describe, expect, it } from "vitest";
import { replicaIdentity } from "@/lib/lease/identity";

describe("replicaIdentity", () => {
  it("is the pod's name and IP with the server's port", () => {
    expect(replicaIdentity({ POD_NAME: "allocation-lens-7d9-abc", POD_IP: "10.1.2.3", PORT: "3000" }, "h")).toEqual({ identity: "allocation-lens-7d9-abc", address: "10.1.2.3:3000" });
  });
  it("brackets an IPv6 pod IP", () => {
    expect(replicaIdentity({ POD_NAME: "p", POD_IP: "fd00::12", PORT: "3001" }, "h").address).toBe("[fd00::12]:3001");
  });
  it("falls back to the host name, 127.0.0.1 and port 3000", () => {
    expect(replicaIdentity({}, "laptop")).toEqual({ identity: "laptop", address: "127.0.0.1:3000" });
    expect(replicaIdentity({ PORT: "4000", POD_NAME: " " }, "laptop")).toEqual({ identity: "laptop", address: "127.0.0.1:4000" });
  });
});

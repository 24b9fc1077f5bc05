import { describe, expect, it } from "vitest";
import { channelMessage, chooseProtocol, CHANNEL_PROTOCOLS, parseChannelMessage, parsePorts, portMessage, refusedText } from "./channel";

describe("WebSocket port-forward channels", () => {
  it("frames data behind its channel byte and the port number little-endian", () => {
    expect([...portMessage(1, 8443)]).toEqual([1, 0xfb, 0x20]);
    expect([...portMessage(0, 80)]).toEqual([0, 80, 0]);
    const m = channelMessage(0, Buffer.from("GET /"));
    expect(m[0]).toBe(0);
    expect(parseChannelMessage(m)).toEqual({ channel: 0, data: Buffer.from("GET /") });
    expect(parseChannelMessage(channelMessage(3, "oops"))!.data.toString()).toBe("oops");
    expect(parseChannelMessage(Buffer.alloc(0))).toBeUndefined();
  });

  it("picks the first offered subprotocol it supports, in the client's order", () => {
    const clientNode = ["v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"];
    expect(chooseProtocol(clientNode, CHANNEL_PROTOCOLS)).toBe("v4.channel.k8s.io");
    expect(chooseProtocol(["portforward.k8s.io", "v4.channel.k8s.io"], CHANNEL_PROTOCOLS)).toBe("portforward.k8s.io");
    expect(chooseProtocol(["v5.channel.k8s.io"], CHANNEL_PROTOCOLS)).toBeUndefined();
  });

  it("reads the ports query and says what is wrong with a bad one", () => {
    expect(parsePorts(["8080"])).toEqual([8080]);
    expect(parsePorts(["80,443", "9"])).toEqual([80, 443, 9]);
    expect(parsePorts([])).toMatch(/required/);
    expect(parsePorts(["http"])).toMatch(/invalid port "http"/);
    expect(parsePorts(["70000"])).toMatch(/invalid port/);
    expect(refusedText(9, "p", "u")).toMatch(/^error forwarding port 9 to pod u, .*: connection refused$/);
  });
});

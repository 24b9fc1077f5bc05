import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { stopOnClosedOutput } from "@/server/inbound/closed-output";

const failure = (code: string) => Object.assign(new Error(`write ${code}`), { code });

describe("stopOnClosedOutput", () => {
  it("stops once when a write to either stream is refused with EPIPE, however often", () => {
    const out = new EventEmitter();
    const err = new EventEmitter();
    const stop = vi.fn();
    stopOnClosedOutput([out, err], stop);
    out.emit("error", failure("EPIPE"));
    err.emit("error", failure("EPIPE"));
    out.emit("error", failure("EPIPE"));
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it("drops the streams' other errors without stopping (an error event with a listener throws nothing)", () => {
    const out = new EventEmitter();
    const stop = vi.fn();
    stopOnClosedOutput([out], stop);
    expect(() => out.emit("error", failure("EIO"))).not.toThrow();
    expect(() => out.emit("error", failure("ERR_STREAM_DESTROYED"))).not.toThrow();
    expect(stop).not.toHaveBeenCalled();
  });
});

import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { generatedFiles, HELM_RULE, PLAIN_RULES } from "@/lib/alerts/files";
import { ALERT_RULES, DEFAULT_ALERT_PARAMS, DEFAULT_URLS, ruleGroups } from "@/lib/alerts/rules";
import { unsupportedActions } from "@/lib/alerts/template";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the generated rule files", () => {
  it.each(Object.keys(generatedFiles()))("%s is up to date (npm run alerts)", (file) => {
    const abs = path.join(ROOT, file);
    expect(fs.existsSync(abs), `${file} is missing: run npm run alerts`).toBe(true);
    expect(fs.readFileSync(abs, "utf8"), `${file} is out of date: run npm run alerts`).toBe(generatedFiles()[file]);
  });

  it("the plain file and the kustomize component hold the same rules, with the default parameters", () => {
    const files = generatedFiles();
    const plain = YAML.parse(files[PLAIN_RULES]);
    const component = YAML.parse(files["deploy/components/alerts/prometheusrule.yaml"]);
    expect(plain.groups).toEqual(ruleGroups(DEFAULT_ALERT_PARAMS, DEFAULT_URLS));
    expect(component).toMatchObject({ apiVersion: "monitoring.coreos.com/v1", kind: "PrometheusRule" });
    expect(component.spec.groups).toEqual(plain.groups);
  });

  it("the Helm template reads every threshold and URL from the values and escapes Prometheus' own templates", () => {
    const t = generatedFiles()[HELM_RULE];
    expect(t.startsWith("{{- if .Values.alerts.enabled -}}")).toBe(true);
    for (const k of Object.keys(DEFAULT_ALERT_PARAMS)) expect(t, k).toContain(`.Values.alerts.${k}`);
    expect(t).toContain(".Values.alerts.runbookBaseUrl");
    expect(t).toContain('include "allocation-lens.alertsDashboardUrl" .');
    expect(t).not.toMatch(/\{\{ \$/);
  });
});

describe("the rules", () => {
  it("have unique names, a severity, a runbook that exists and templates the Alerts view renders", () => {
    expect(new Set(ALERT_RULES.map((r) => r.alert)).size).toBe(ALERT_RULES.length);
    for (const r of ALERT_RULES) {
      expect(r.alert).toMatch(/^AllocationLens[A-Z][A-Za-z]+$/);
      expect(fs.existsSync(path.join(ROOT, "docs/runbooks", `${r.runbook}.md`)), `docs/runbooks/${r.runbook}.md`).toBe(true);
      for (const text of [r.summary, r.description, r.dashboardPath]) expect(unsupportedActions(text), r.alert).toEqual([]);
      expect(r.dashboardPath).toMatch(/^\/[a-z]*\?cluster=/);
    }
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** Helpers of the Kubernetes tests: render an overlay, read the Dockerfile's images, resolve a container's env. */

export const ROOT = join(import.meta.dirname, '..', '..');
export const K8S = join(ROOT, 'infra', 'k8s');
export const OVERLAYS = ['dev', 'prod', 'prod-cloudnative-pg'] as const;

/** A rendered Kubernetes object, as loosely as the tests read it. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
  };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string; optional?: boolean }; secretRef?: { name: string; optional?: boolean } }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: number | string } };
  livenessProbe?: { httpGet?: { path: string; port: number | string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
}

/** `kubectl kustomize infra/k8s/overlays/<overlay>`, parsed. */
export function render(overlay: string): K8sObject[] {
  const out = execFileSync('kubectl', ['kustomize', join(K8S, 'overlays', overlay)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} rendered`);
  return found;
}

/** The pod template of a workload (Deployment, StatefulSet, Job). */
export function podSpec(o: K8sObject): {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: Record<string, unknown>;
  volumes?: unknown[];
} {
  return o.spec.template.spec;
}

/** An image of the Dockerfile: its target stage's CMD, and the ENV it inherits. */
export interface DockerImage {
  cmd: string[] | null;
  env: Record<string, string>;
}

/** The Dockerfile's stages by name, each with the ENV of its ancestors and its CMD. */
export function dockerImages(): Map<string, DockerImage> {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages = new Map<string, DockerImage>();
  let current: DockerImage | null = null;
  for (const line of text.split('\n').map((l) => l.trim())) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      const parent = stages.get(from[1]!);
      current = { cmd: parent?.cmd ?? null, env: { ...parent?.env } };
      if (from[2]) stages.set(from[2], current);
      continue;
    }
    if (!current) continue;
    const env = /^ENV\s+(.*)$/i.exec(line);
    if (env) for (const m of env[1]!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)) current.env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
    const cmd = /^CMD\s+(\[.*\])$/i.exec(line);
    if (cmd) current.cmd = JSON.parse(cmd[1]!) as string[];
  }
  return stages;
}

/** The Dockerfile target that builds `image` (`tradeinfra/<target>[:tag]`), or null for an outside image. */
export function dockerTarget(image: string): string | null {
  const m = /^tradeinfra\/([a-z0-9-]+)(?::.*)?$/.exec(image);
  return m ? m[1]! : null;
}

export interface Resolution {
  /** Secret name → key → value. */
  secrets: Record<string, Record<string, string>>;
  configMaps: Map<string, Record<string, string>>;
  /** fieldRef fieldPath → value (e.g. metadata.name). */
  fields?: Record<string, string>;
}

/**
 * The environment a container gets, as the kubelet builds it: `envFrom` first, then `env`
 * (later wins), each reference resolved; a missing required reference throws, as a pod would
 * fail to start.
 */
export function containerEnv(container: Container, r: Resolution): Record<string, string> {
  const env: Record<string, string> = {};
  const source = (kind: 'secret' | 'configMap', name: string, optional = false): Record<string, string> | null => {
    const found = kind === 'secret' ? r.secrets[name] : r.configMaps.get(name);
    if (!found && !optional) throw new Error(`${container.name}: ${kind} ${name} not found`);
    return found ?? null;
  };
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, source('configMap', from.configMapRef.name, from.configMapRef.optional));
    if (from.secretRef) Object.assign(env, source('secret', from.secretRef.name, from.secretRef.optional));
  }
  for (const v of container.env ?? []) {
    if (v.value !== undefined) env[v.name] = v.value;
    const ref = v.valueFrom?.secretKeyRef ?? v.valueFrom?.configMapKeyRef;
    if (ref) {
      const data = source(v.valueFrom?.secretKeyRef ? 'secret' : 'configMap', ref.name, ref.optional);
      const value = data?.[ref.key];
      if (value === undefined && !ref.optional) throw new Error(`${container.name}: ${v.name} refers to ${ref.name}/${ref.key}, which does not exist`);
      if (value !== undefined) env[v.name] = value;
    }
    const field = v.valueFrom?.fieldRef?.fieldPath;
    if (field) {
      const value = r.fields?.[field];
      if (value === undefined) throw new Error(`${container.name}: ${v.name} refers to the field ${field}`);
      env[v.name] = value;
    }
  }
  return env;
}

/** The container port a probe or Service port names (a number, or a port's name). */
export function containerPort(container: Container, port: number | string): number {
  if (typeof port === 'number') return port;
  const found = container.ports?.find((p) => p.name === port);
  if (!found) throw new Error(`${container.name} has no port named ${port}`);
  return found.containerPort;
}

// The addresses mailed to data subjects, built on LETHE_PUBLIC_URL (default: where the API listens).
import type { Config } from '../config.ts';

export function publicBaseUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  return config.publicUrl ?? `http://${config.host}:${config.port}`;
}

export function requestStatusUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, id: string): string {
  return `${publicBaseUrl(config)}/privacy-center/requests/${encodeURIComponent(id)}`;
}

export function confirmAgentUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, token: string): string {
  return `${publicBaseUrl(config)}/privacy-center/confirm-agent/${token}`;
}

export function downloadUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, token: string): string {
  return `${publicBaseUrl(config)}/privacy-center/download/${token}`;
}

export function appealUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, token: string): string {
  return `${publicBaseUrl(config)}/privacy-center/appeal/${token}`;
}

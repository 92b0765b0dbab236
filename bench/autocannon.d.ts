// The part of autocannon's API the fallback driver uses (the package ships no types).
declare module 'autocannon' {
  interface AutocannonRequest {
    method?: string;
    headers?: Record<string, string>;
    setupRequest?: (request: Record<string, unknown>) => Record<string, unknown>;
  }
  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    requests?: AutocannonRequest[];
  }
  interface AutocannonResult {
    duration: number;
    non2xx: number;
    errors: number;
    timeouts: number;
    requests: { total: number; average: number };
    latency: { p50: number; p99: number };
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}

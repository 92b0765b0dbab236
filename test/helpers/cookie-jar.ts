// A cookie jar for identity flows driven with app.inject: keeps what Set-Cookie gives, sends it back.
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  absorb(setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1);
      if (value === '' || /max-age=0/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  has(name: string): boolean {
    return this.#cookies.has(name);
  }

  names(): string[] {
    return [...this.#cookies.keys()];
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

// The console's location lives in the URL hash (`#/records/posts?status__eq=draft&_sort=-title`), so a
// shared or reloaded link opens the same view. Never holds a credential.
export interface Route {
  view: string;
  name: string;
  params: URLSearchParams;
}

function parse(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = text.split('?', 2);
  const [view = '', ...rest] = path.split('/');
  return { view: view || 'home', name: decodeURIComponent(rest.join('/')), params: new URLSearchParams(query) };
}

export const route: Route = $state(parse(location.hash));

window.addEventListener('hashchange', () => {
  const next = parse(location.hash);
  route.view = next.view;
  route.name = next.name;
  route.params = next.params;
});

export function href(view: string, name = '', params?: URLSearchParams | Record<string, string>): string {
  const search = params instanceof URLSearchParams ? params : new URLSearchParams(params ?? {});
  const query = search.toString();
  return `#/${view}${name ? `/${encodeURIComponent(name)}` : ''}${query ? `?${query}` : ''}`;
}

export function go(view: string, name = '', params?: URLSearchParams | Record<string, string>): void {
  location.hash = href(view, name, params);
}

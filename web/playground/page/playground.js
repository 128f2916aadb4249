// Starts GraphiQL, loaded from this server by the scripts before this one,
// on the API of the same origin: queries and mutations over POST to
// /graphql, subscriptions over a websocket at /graphql speaking
// graphql-transport-ws (the one subprotocol the server accepts). The example
// operations, which the server puts in the page as JSON, open as tabs.
'use strict';

// GraphiQL's dialogs add a <style> element while open (to lock the page's
// scroll), with the nonce it finds in __webpack_nonce__. The page's
// Content-Security-Policy lets in a style with the nonce of this answer,
// which the server put on this script's element.
window.__webpack_nonce__ = document.currentScript.nonce;

(() => {
  const endpoint = location.origin + '/graphql';
  const subscriptions = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
  const examples = JSON.parse(document.getElementById('examples').textContent);
  const { parse, Kind } = GraphiQL.GraphQL;

  // GraphiQL reads the operation from the editor a moment after each edit
  // or change of tab; run within that moment, it would send the previous
  // operation's name, which the server refuses as not in the document, and
  // judge from the previous document whether to use the websocket. The
  // fetcher reads the document it is given instead; a document of one
  // operation is sent with that operation's own name.
  const current = (params, options) => {
    let document;
    try {
      document = parse(params.query);
    } catch {
      return [params, options]; // the server says what is wrong with it
    }
    const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (params.operationName && operations.length === 1 && operations[0].name?.value !== params.operationName) {
      params = { ...params, operationName: operations[0].name?.value ?? null };
    }
    return [params, { ...options, documentAST: document }];
  };
  const graphiqlFetcher = GraphiQL.createFetcher({ url: endpoint, subscriptionUrl: subscriptions });
  const fetcher = (params, options) => graphiqlFetcher(...current(params, options));

  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher,
      defaultTabs: examples.map((query) => ({ query })),
      plugins: [GraphiQLPluginExplorer.explorerPlugin()],
      // The headers tab may hold the admin token: keep it out of localStorage.
      shouldPersistHeaders: false,
      inputValueDeprecation: true,
    }),
  );
})();

// Lint Cypher statements with Neo4j's own front-end (@neo4j-cypher/language-support,
// lintCypherQuery: Neo4j 5's parser and semantic analysis).
// stdin: a JSON list of {"id": ..., "query": ...}; stdout: a JSON list of
// {"id", "diagnostics": [{"severity": 1 error | 2 warning, "message", "offset"}]}.
import { lintCypherQuery } from '@neo4j-cypher/language-support';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map(({ id, query }) => {
    // Every $parameter is given (the project always sends them); their values do not matter here.
    const parameters = Object.fromEntries([...query.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => [m[1], null]));
    const result = lintCypherQuery(query, { parameters });
    const diagnostics = (result.diagnostics ?? result).map((d) => ({
      severity: d.severity, message: d.message, offset: d.offsets ? d.offsets.start : null,
    }));
    return { id, diagnostics };
  });
  process.stdout.write(JSON.stringify(out));
});

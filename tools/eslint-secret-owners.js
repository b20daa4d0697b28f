// An ESLint rule for the house: each key purpose of the keyring (src/crypto/keyring.ts) is used by one
// owner module only, so no other module can open what that owner seals. It reads the purpose given to
// `.key(...)` or `.secretKey(...)` as a string or a template literal (its static text, up to the first
// part computed at run time, so `datastore-values:${name}` names the purpose `datastore-values:`). An owner
// is a file, or a folder (ending in `/`) whose files share the key.

/** The text a purpose argument is known to start with, or undefined when nothing of it is static. */
function staticPrefix(node) {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type !== 'TemplateLiteral') return undefined;
  let text = '';
  for (const [index, quasi] of node.quasis.entries()) {
    text += quasi.value.cooked ?? '';
    const expression = node.expressions[index];
    if (!expression) break;
    if (expression.type === 'Literal' && typeof expression.value === 'string') text += expression.value;
    else return text;
  }
  return text;
}

export const secretOwners = {
  meta: {
    type: 'problem',
    docs: { description: 'A key purpose is derived by its owner module only.' },
    schema: [{ type: 'object', additionalProperties: { type: 'string' } }],
    messages: {
      notOwner: "The key '{{purpose}}' is used by {{owner}} only: ask that module.",
      unknown: 'A key purpose must be named by a string this rule can read (see eslint.config.js).',
    },
  },
  create(context) {
    const owners = context.options[0] ?? {};
    const file = context.filename.replace(/\\/g, '/');
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
        if (callee.property.name !== 'key' && callee.property.name !== 'secretKey') return;
        const argument = node.arguments[0];
        if (!argument || argument.type === 'SpreadElement') return;
        const prefix = staticPrefix(argument);
        if (prefix === undefined) {
          if (argument.type === 'TemplateLiteral') context.report({ node: argument, messageId: 'unknown' });
          return;
        }
        const purpose = Object.keys(owners).find((name) => prefix === name || prefix.startsWith(name));
        if (!purpose) return;
        const owner = owners[purpose];
        const owns = owner.endsWith('/') ? file.includes(`/${owner}`) : file.endsWith(`/${owner}`);
        if (!owns) context.report({ node: argument, messageId: 'notOwner', data: { purpose, owner } });
      },
    };
  },
};

export default { rules: { 'secret-owners': secretOwners } };

// An ESLint rule for the house: each key purpose of the keyring (src/crypto/keyring.ts) is used by one
// owner module only, so no other module can open what that owner seals. It reads the purpose given to
// `.key(...)` or `.secretKey(...)` as a string or a template literal (its static text, up to the first
// part computed at run time, so `datastore-values:${name}` names the purpose `datastore-values:`). An owner
// is a file, or a folder (ending in `/`) whose files share the key.
//
// A purpose must be written where the key is taken, or the rule could not tell whose it is: a purpose held
// in a variable, a method reached by a computed member (`keyring['key']`, `keyring[name]`), and a method
// taken off the ring (`const { key } = keyring`, `const derive = keyring.secretKey`) are refused. Only the
// keyring itself passes a purpose along (secretKey derives through key).

const METHODS = new Set(['key', 'secretKey']);
const KEYRING_MODULE = '/src/crypto/keyring.ts';

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

/** The name a member's property is known by: `a.key` and `a['key']` both name `key`; `a[name]` names none. */
function memberName(member) {
  if (!member.computed && member.property.type === 'Identifier') return member.property.name;
  return staticPrefix(member.property);
}

/** Whether an expression reads like the key ring: `keyring`, `services.keyring`, `this.#keyring`. */
function isKeyring(node) {
  if (node.type === 'Identifier') return /keyring/i.test(node.name);
  if (node.type === 'MemberExpression') {
    const property = node.property;
    if (property.type === 'Identifier' || property.type === 'PrivateIdentifier')
      return /keyring/i.test(property.name);
  }
  return false;
}

export const secretOwners = {
  meta: {
    type: 'problem',
    docs: {
      description: 'A key purpose is derived by its owner module only, and is written where it is taken.',
    },
    schema: [{ type: 'object', additionalProperties: { type: 'string' } }],
    messages: {
      notOwner: "The key '{{purpose}}' is used by {{owner}} only: ask that module.",
      unknown: 'A key purpose must be named by a string this rule can read (see eslint.config.js).',
      detached:
        "Call the key ring's {{method}}() directly with its purpose written out, so the rule can tell whose key it is.",
    },
  },
  create(context) {
    const owners = context.options[0] ?? {};
    const file = context.filename.replace(/\\/g, '/');
    if (file.endsWith(KEYRING_MODULE)) return {};
    const checkPurpose = (argument) => {
      if (!argument || argument.type === 'SpreadElement') {
        context.report({ node: argument ?? context.sourceCode.ast, messageId: 'unknown' });
        return;
      }
      const prefix = staticPrefix(argument);
      if (prefix === undefined) {
        context.report({ node: argument, messageId: 'unknown' });
        return;
      }
      const purpose = Object.keys(owners).find((name) => prefix === name || prefix.startsWith(name));
      if (!purpose) return;
      const owner = owners[purpose];
      const owns = owner.endsWith('/') ? file.includes(`/${owner}`) : file.endsWith(`/${owner}`);
      if (!owns) context.report({ node: argument, messageId: 'notOwner', data: { purpose, owner } });
    };
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression') return;
        const name = memberName(callee);
        if (name === undefined) {
          if (isKeyring(callee.object))
            context.report({ node: callee, messageId: 'detached', data: { method: 'key' } });
          return;
        }
        if (!METHODS.has(name)) return;
        checkPurpose(node.arguments[0]);
      },
      // `const derive = keyring.key`, `keyring.secretKey.bind(keyring)`: the method leaves the call.
      MemberExpression(node) {
        const name = memberName(node);
        if (!METHODS.has(name) || !isKeyring(node.object)) return;
        if (node.parent.type === 'CallExpression' && node.parent.callee === node) return;
        context.report({ node, messageId: 'detached', data: { method: name } });
      },
      // `const { key } = keyring`, `const { secretKey: derive } = services.keyring`.
      VariableDeclarator(node) {
        if (node.id.type !== 'ObjectPattern' || !node.init || !isKeyring(node.init)) return;
        for (const property of node.id.properties) {
          if (property.type !== 'Property') continue;
          const name =
            property.key.type === 'Identifier' && !property.computed
              ? property.key.name
              : staticPrefix(property.key);
          if (METHODS.has(name))
            context.report({ node: property, messageId: 'detached', data: { method: name } });
        }
      },
    };
  },
};

export default { rules: { 'secret-owners': secretOwners } };

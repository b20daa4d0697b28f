// An ESLint rule for the house: trust is a type only proof can make (src/privacy-requests/trusted-identity.ts,
// DECISIONS.md "Trust by construction"). Each function there that makes a TrustedIdentity stands for one
// proof and may be imported only by the module that holds that proof; nothing but the trust module itself
// (and identity.ts, which opens the trusted set it sealed) may cast a value to TrustedIdentity or
// TrustedMatch. A new way in that wants trust must prove something, and this rule says where.

const TRUST_MODULE = 'src/privacy-requests/trusted-identity.ts';
const TRUSTED_TYPES = new Set(['TrustedIdentity', 'TrustedMatch']);

/** Whether a type annotation names a trusted type anywhere inside it (arrays, unions, generics). */
function namesTrustedType(node) {
  if (!node || typeof node !== 'object') return false;
  if (
    node.type === 'TSTypeReference' &&
    node.typeName?.type === 'Identifier' &&
    TRUSTED_TYPES.has(node.typeName.name)
  )
    return true;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'parent') continue;
    if (Array.isArray(value) ? value.some(namesTrustedType) : value?.type && namesTrustedType(value))
      return true;
  }
  return false;
}

export const trustedIdentity = {
  meta: {
    type: 'problem',
    docs: { description: 'Only the proving modules make a TrustedIdentity.' },
    schema: [
      {
        type: 'object',
        properties: {
          minters: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          casters: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      notProver:
        '{{name}} makes a TrustedIdentity from one proof; only {{owners}} may use it. Prove the identity there.',
      whole: 'Import the trust module by name: only its proving modules may use its minting functions.',
      cast: 'Only proof makes a trusted identity: no cast to {{type}} outside the trust module.',
    },
  },
  create(context) {
    const { minters = {}, casters = [] } = context.options[0] ?? {};
    const file = context.filename.replace(/\\/g, '/');
    const isFile = (owner) => file.endsWith(`/${owner}`);
    if (isFile(TRUST_MODULE)) return {};
    const checkCast = (node) => {
      if (casters.some(isFile)) return;
      if (namesTrustedType(node.typeAnnotation))
        context.report({ node, messageId: 'cast', data: { type: 'a trusted type' } });
    };
    return {
      ImportDeclaration(node) {
        if (typeof node.source.value !== 'string' || !node.source.value.endsWith('trusted-identity.ts'))
          return;
        for (const specifier of node.specifiers) {
          if (specifier.type !== 'ImportSpecifier') {
            if (node.importKind !== 'type') context.report({ node: specifier, messageId: 'whole' });
            continue;
          }
          const name =
            specifier.imported.type === 'Identifier' ? specifier.imported.name : specifier.imported.value;
          const owners = minters[name];
          if (owners && !owners.some(isFile))
            context.report({
              node: specifier,
              messageId: 'notProver',
              data: { name, owners: owners.join(', ') },
            });
        }
      },
      TSAsExpression: checkCast,
      TSTypeAssertion: checkCast,
    };
  },
};

export default { rules: { 'trusted-identity': trustedIdentity } };

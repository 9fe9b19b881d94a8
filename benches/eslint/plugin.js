// A local ESLint plugin with one rule, `no-unchecked-breakpoint`: the
// check a team would write for itself instead of using proclint. It flags
// `ctx.breakpoint(...)` whose result is discarded (an expression statement,
// with or without `await`, or under `void`) or assigned to a variable that
// is never read. The process context is recognised by name (`ctx` and
// `context` by default, configurable), which is what a name-based rule can
// do without a cross-function analysis.

const DEFAULT_CONTEXT_NAMES = ['ctx', 'context'];

/** The expression whose value is the breakpoint's result, skipping
 * `await`, `void` (reported as discarded) and optional-chain wrappers. */
function resultHolder(node) {
  let cur = node;
  for (;;) {
    const parent = cur.parent;
    if (parent.type === 'AwaitExpression' || parent.type === 'ChainExpression') {
      cur = parent;
      continue;
    }
    if (parent.type === 'UnaryExpression' && parent.operator === 'void') {
      return { kind: 'discarded', node: parent };
    }
    return { kind: 'used', node: cur, parent };
  }
}

function findVariable(scope, name) {
  for (let s = scope; s; s = s.upper) {
    const v = s.set.get(name);
    if (v) return v;
  }
  return null;
}

function hasRead(variable) {
  return variable.references.some((r) => r.isRead());
}

const noUncheckedBreakpoint = {
  meta: {
    type: 'problem',
    docs: {
      description: "Require the result of ctx.breakpoint(...) to be used (a discarded decision turns a rejection into an approval)",
    },
    schema: [
      {
        type: 'object',
        properties: { contextNames: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    ],
    messages: {
      discarded: 'The result of {{callee}}(...) is discarded: a rejection is treated as an approval.',
      unread: 'The result of {{callee}}(...) is assigned to `{{name}}` but never read: a rejection is treated as an approval.',
    },
  },
  create(context) {
    const names = new Set(context.options[0]?.contextNames ?? DEFAULT_CONTEXT_NAMES);
    const sourceCode = context.sourceCode;
    return {
      // esquery pre-filters on the property name, so only `*.breakpoint(...)`
      // calls reach the handler.
      "CallExpression[callee.type='MemberExpression'][callee.property.name='breakpoint']"(node) {
        const obj = node.callee.object;
        if (node.callee.computed || obj.type !== 'Identifier' || !names.has(obj.name)) return;
        const callee = `${obj.name}.breakpoint`;
        const holder = resultHolder(node);
        if (holder.kind === 'discarded') {
          context.report({ node, messageId: 'discarded', data: { callee } });
          return;
        }
        const { parent } = holder;
        if (parent.type === 'ExpressionStatement') {
          context.report({ node, messageId: 'discarded', data: { callee } });
          return;
        }
        if (parent.type === 'VariableDeclarator' && parent.init === holder.node && parent.id.type === 'Identifier') {
          const [variable] = sourceCode.getDeclaredVariables(parent);
          if (variable && !hasRead(variable)) {
            context.report({ node, messageId: 'unread', data: { callee, name: variable.name } });
          }
          return;
        }
        if (parent.type === 'AssignmentExpression' && parent.operator === '=' && parent.right === holder.node
          && parent.left.type === 'Identifier' && parent.parent.type === 'ExpressionStatement') {
          const variable = findVariable(sourceCode.getScope(parent), parent.left.name);
          if (variable && !hasRead(variable)) {
            context.report({ node, messageId: 'unread', data: { callee, name: variable.name } });
          }
        }
      },
    };
  },
};

export default {
  meta: { name: 'eslint-plugin-babysitter-local', version: '0.0.0' },
  rules: { 'no-unchecked-breakpoint': noUncheckedBreakpoint },
};

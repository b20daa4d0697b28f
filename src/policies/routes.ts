// HTTP face of the DSR policies and rules: schemas, scopes and status codes; the rules live in PolicyService.
import type { FastifyPluginAsync } from 'fastify';
import { describeActionTypes } from '../actions/registry.ts';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, Page, PageQuery, security } from '../http/schemas.ts';
import Type from 'typebox';
import { describeMaskingStrategies } from '../masking/strategies.ts';
import type { Services } from '../services.ts';
import { BulkBody, BulkResponse } from '../validation/bulk.ts';
import {
  ActionTypeDescription,
  MaskingStrategyDescription,
  PolicyItem,
  PolicyKeyParams,
  PolicyView,
  ruleItem,
  RuleView,
} from './schemas.ts';
import { PolicyService } from './service.ts';

const tags = ['dsr policies'];

export function policyRoutes(services: Services): FastifyPluginAsync {
  const policies = new PolicyService(services);
  return async (app) => {
    app.get<{ Querystring: { page?: number; size?: number } }>(
      '/dsr/policy',
      {
        onRequest: app.authorize('policy:read'),
        schema: {
          tags,
          summary: 'List DSR policies with their rules, by key, paged.',
          security,
          querystring: PageQuery,
          response: { 200: Page(PolicyView), ...managementErrors },
        },
      },
      async (request) => policies.list(request.query.page ?? 1, request.query.size ?? 50),
    );

    app.get(
      '/masking/strategy',
      {
        onRequest: app.authorize('policy:read'),
        schema: {
          tags,
          summary:
            "The masking strategies an erasure rule may use, with their configurations (Fides' shape).",
          security,
          response: { 200: Type.Array(MaskingStrategyDescription), ...managementErrors },
        },
      },
      async () => describeMaskingStrategies(),
    );

    app.get(
      '/action-type',
      {
        onRequest: app.authorize('policy:read'),
        schema: {
          tags,
          summary:
            'The action types a rule may have (the registry the service runs), with what each takes and does.',
          security,
          response: { 200: Type.Array(ActionTypeDescription), ...managementErrors },
        },
      },
      async () => describeActionTypes(services.config),
    );

    app.get<{ Params: { policy_key: string } }>(
      '/dsr/policy/:policy_key',
      {
        onRequest: app.authorize('policy:read'),
        schema: {
          tags,
          summary: 'One DSR policy with its rules.',
          security,
          params: PolicyKeyParams,
          response: { 200: PolicyView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => policies.get(request.params.policy_key),
    );

    app.patch<{ Body: unknown[] }>(
      '/dsr/policy',
      {
        onRequest: app.authorize('policy:create_or_update'),
        schema: {
          tags,
          summary: 'Create or update up to 50 policies; each item succeeds or fails on its own.',
          security,
          body: BulkBody(PolicyItem),
          response: { 200: BulkResponse(PolicyView), ...managementErrors },
        },
      },
      async (request) => {
        const result = await policies.upsert(changeActorOf(request), request.body);
        request.log.info(
          { succeeded: result.succeeded.map((policy) => policy.key), failed: result.failed.length },
          'policies upserted',
        );
        return result;
      },
    );

    app.patch<{ Params: { policy_key: string }; Body: unknown[] }>(
      '/dsr/policy/:policy_key/rule',
      {
        onRequest: app.authorize('policy:create_or_update'),
        schema: {
          tags,
          summary:
            'Create or update up to 50 rules of a policy (access: storage destination; erasure: masking strategy).',
          security,
          params: PolicyKeyParams,
          body: BulkBody(ruleItem()),
          response: { 200: BulkResponse(RuleView), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const result = await policies.upsertRules(
          changeActorOf(request),
          request.params.policy_key,
          request.body,
        );
        request.log.info(
          {
            policy_key: request.params.policy_key,
            succeeded: result.succeeded.map((rule) => rule.key),
            failed: result.failed.length,
          },
          'rules upserted',
        );
        return result;
      },
    );
  };
}

import { loadAwsServiceSpec } from '@aws-cdk/aws-service-spec';
import type { PropertyType, Resource, ResourceProperties } from '@aws-cdk/service-spec-types';

type SpecDatabase = Awaited<ReturnType<typeof loadAwsServiceSpec>>;

/**
 * Checks a CloudFormation template against the resource specification of
 * `@aws-cdk/aws-service-spec` (the registry schemas CDK generates its L1s from): each resource
 * type exists, required properties are present, no property is unknown (at any depth), string
 * enums hold an allowed value, and every `Fn::GetAtt` names an attribute its resource has.
 * Intrinsics are not evaluated: where a value is `Ref`/`Fn::*`, its shape is not checked.
 */
export class CfnSpec {
  private constructor(private readonly db: SpecDatabase) {}

  static async load(): Promise<CfnSpec> {
    return new CfnSpec(await loadAwsServiceSpec());
  }

  /** Problems of the whole template, each `LogicalId.Path: what`. */
  validate(template: { Resources: Record<string, { Type: string; Properties?: unknown }> }) {
    const problems: string[] = [];
    const resources = template.Resources;
    for (const [id, resource] of Object.entries(resources)) {
      // CDK's version report: CloudFormation accepts it without a registry schema.
      if (resource.Type === 'AWS::CDK::Metadata') continue;
      const spec = this.resource(resource.Type);
      if (!spec) {
        problems.push(`${id}: unknown resource type ${resource.Type}`);
        continue;
      }
      problems.push(...this.properties(resource.Properties ?? {}, spec.properties, id));
    }
    problems.push(...this.getAtts(template, resources));
    return problems;
  }

  private resource(type: string): Resource | undefined {
    return this.db.lookup('resource', 'cloudFormationType', 'equals', type)[0];
  }

  private properties(value: unknown, spec: ResourceProperties, path: string): string[] {
    if (isIntrinsic(value)) return [];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return [`${path}: expected an object, got ${JSON.stringify(value)}`];
    }
    const problems: string[] = [];
    const given = value as Record<string, unknown>;
    for (const [name, property] of Object.entries(spec)) {
      if (property.required && given[name] === undefined) {
        problems.push(`${path}.${name}: required property missing`);
      }
    }
    for (const [name, item] of Object.entries(given)) {
      const property = spec[name];
      if (!property) problems.push(`${path}.${name}: unknown property`);
      else problems.push(...this.typed(item, property.type, `${path}.${name}`));
    }
    return problems;
  }

  private typed(value: unknown, type: PropertyType, path: string): string[] {
    if (isIntrinsic(value)) return [];
    switch (type.type) {
      case 'ref': {
        const definition = this.db.get('typeDefinition', type.reference);
        return this.properties(value, definition.properties, path);
      }
      case 'array':
        if (!Array.isArray(value)) return [`${path}: expected a list`];
        return value.flatMap((item, i) => this.typed(item, type.element, `${path}[${i}]`));
      case 'map':
        if (typeof value !== 'object' || value === null) return [`${path}: expected a map`];
        return Object.entries(value).flatMap(([k, v]) =>
          this.typed(v, type.element, `${path}.${k}`),
        );
      case 'union': {
        const tries = type.types.map((t) => this.typed(value, t, path));
        return tries.some((p) => p.length === 0) ? [] : tries[0]!;
      }
      case 'string':
        if (typeof value === 'object') return [`${path}: expected a string`];
        if (type.allowedValues && !type.allowedValues.includes(String(value))) {
          return [
            `${path}: ${JSON.stringify(value)} is not one of ${type.allowedValues.join(', ')}`,
          ];
        }
        return [];
      case 'integer':
      case 'number':
      case 'boolean':
        return typeof value === 'object' ? [`${path}: expected a ${type.type}`] : [];
      default:
        return [];
    }
  }

  /** `Fn::GetAtt: [LogicalId, Attribute]` anywhere in the template names a real attribute. */
  private getAtts(template: unknown, resources: Record<string, { Type: string }>): string[] {
    const problems: string[] = [];
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node && typeof node === 'object') {
        const getAtt = (node as Record<string, unknown>)['Fn::GetAtt'];
        if (Array.isArray(getAtt)) {
          const [id, attribute] = getAtt as [string, string];
          const type = resources[id]?.Type;
          const spec = type ? this.resource(type) : undefined;
          if (!type) problems.push(`Fn::GetAtt ${id}.${attribute}: no such resource`);
          else if (spec && !(attribute in spec.attributes)) {
            problems.push(`Fn::GetAtt ${id}.${attribute}: ${type} has no such attribute`);
          }
        }
        Object.values(node).forEach(visit);
      }
    };
    visit(template);
    return problems;
  }
}

function isIntrinsic(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'));
}

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { StepReference } from '../types/compiled-plan.js'
import { PlanLinks } from './plan-links.js'
import { StepTable } from './step-table.js'

function tableOf(ids: (string | undefined)[]): StepTable {
  const table = new StepTable(ids.length)
  for (const id of ids) table.add(id, 'tool', {}, false, id !== undefined)
  return table
}

/** The ids `node` depends on, read out of the edge columns. */
function dependsOnOf(links: PlanLinks, node: number): string[] {
  const targets = links.dependencyTarget.subarray(
    links.dependencyStart[node],
    links.dependencyStart[node + 1],
  )
  return [...targets].map((target) => links.ids[target] as string)
}

const reference = (stepId: string): StepReference =>
  Object.freeze({ path: Object.freeze(['text']), stepId, field: Object.freeze([]) })

describe('PlanLinks', () => {
  it('should number only the steps in the graph, in plan order', () => {
    const links = new PlanLinks(tableOf(['a', undefined, 'b']))
    expect([...links.nodeOf]).toEqual([0, -1, 1])
    expect([...links.rowOf]).toEqual([0, 2])
    expect(links.size).toBe(2)
  })

  it('should keep each dependency once, explicit ones before those implied by references', () => {
    const links = new PlanLinks(tableOf(['a', 'b', 'c']))
    links.addReferences(0, [], [])
    links.close(0, 'a', undefined)
    links.addReferences(1, [], [])
    links.close(1, 'b', undefined)
    links.addDependency(2, 1)
    links.addDependency(2, 1)
    links.addReferences(2, [reference('a'), reference('b')], [0, 1])
    links.close(2, 'c', undefined)
    expect([0, 1, 2].map((node) => dependsOnOf(links, node))).toEqual([[], [], ['b', 'a']])
    expect([...links.dependencyStart]).toEqual([0, 0, 0, 2])
    expect([...links.dependencyTarget.subarray(0, links.edgeCount)]).toEqual([1, 0])
    expect([...links.referenceStart]).toEqual([0, 0, 0, 2])
    expect([...links.referenceTarget.subarray(0, links.referenceCount)]).toEqual([0, 1])
    expect(links.references[2]?.map((entry) => entry.stepId)).toEqual(['a', 'b'])
  })
})

describe('PlanLinks.addDependency', () => {
  it('should keep each of many dependencies once', () => {
    const ids = Array.from({ length: 30 }, (_, index) => `s${index}`)
    const links = new PlanLinks(tableOf(ids))
    for (let node = 0; node < 29; node += 1) {
      links.addReferences(node, [], [])
      links.close(node, ids[node] as string, undefined)
    }
    for (let round = 0; round < 3; round += 1)
      for (let dependency = 28; dependency >= 0; dependency -= 1)
        links.addDependency(29, dependency)
    links.addReferences(29, [], [])
    links.close(29, 's29', undefined)
    expect(dependsOnOf(links, 29)).toEqual(ids.slice(0, 29).reverse())
    expect([...links.dependencyTarget.subarray(0, links.edgeCount)]).toEqual(
      Array.from({ length: 29 }, (_, index) => 28 - index),
    )
  })
})

describe('PlanLinks (properties)', () => {
  const nodeArb = fc.record({
    inGraph: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, fc.constant(false)),
    // Mostly a few edges (so nodes share a lone dependency), sometimes more than are scanned.
    dependencies: fc.oneof(
      { weight: 3, arbitrary: fc.array(fc.nat(8), { maxLength: 2 }) },
      { weight: 1, arbitrary: fc.array(fc.nat(40), { maxLength: 20 }) },
    ),
    references: fc.array(fc.nat(40), { maxLength: 3 }),
  })

  it('should link each node to its dependencies, then its references, each once and in first-seen order', () => {
    fc.assert(
      fc.property(fc.array(nodeArb, { minLength: 1, maxLength: 40 }), (drafts) => {
        const rows = drafts.map((draft, row) => (draft.inGraph ? `s${row}` : undefined))
        const links = new PlanLinks(tableOf(rows))
        const ids = rows.filter((id) => id !== undefined)
        const expected: number[][] = []
        const referenced: number[] = []
        const args: object[] = []
        let node = 0
        for (const draft of drafts) {
          if (!draft.inGraph) continue
          const size = ids.length
          const dependencies = draft.dependencies.map((pick) => pick % size)
          const targets = draft.references.map((pick) => pick % size)
          for (const dependency of dependencies) links.addDependency(node, dependency)
          const references = targets.map((target) => reference(ids[target] as string))
          links.addReferences(
            node,
            references,
            targets.map((target) => links.rowOf[target] as number),
          )
          args.push({ node })
          links.close(node, ids[node] as string, undefined, args[node] as never)
          expected.push([...new Set([...dependencies, ...targets])])
          referenced.push(...targets)
          node += 1
        }
        const start = links.dependencyStart
        for (const [node, edges] of expected.entries()) {
          const linked = [...links.dependencyTarget.subarray(start[node], start[node + 1])]
          expect(linked).toEqual(edges)
          expect(dependsOnOf(links, node)).toEqual(edges.map((edge) => ids[edge]))
          expect(links.ids[node]).toBe(ids[node])
          expect(links.args[node]).toBe(args[node])
          expect(Object.isFrozen(links.references[node])).toBe(true)
        }
        expect([...links.referenceTarget.subarray(0, links.referenceCount)]).toEqual(referenced)
        expect(links.references.flatMap((own) => own.map((entry) => entry.stepId))).toEqual(
          referenced.map((target) => ids[target]),
        )
        expect(links.ids.length).toBe(ids.length)
        expect(links.args.length).toBe(ids.length)
      }),
    )
  })
})

import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { programRoles, programsWithRoles } from '../argument-roles.js'
import { isCatalogProgram } from '../catalog-programs.js'
import { programsWithBuiltinRules } from '../check-builtin-rules.js'
import { PROGRAM_FAMILIES } from './program-families.js'
import type { ProgramFamily } from './program-family.js'

const TABLES = [
  'globalOptions',
  'roles',
  'valueOptions',
  'valueChecks',
  'builtins',
  'aliases',
  'treeReads',
] as const

/** The family constants the files of this folder export (`export const GIT_FAMILY`). */
function exportedFamilies(): string[] {
  return readdirSync(import.meta.dirname)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .flatMap((file) => {
      const text = readFileSync(`${import.meta.dirname}/${file}`, 'utf8')
      return [...text.matchAll(/^export const (\w+_FAMILY): ProgramFamily/gm)].map(
        (match) => match[1] ?? '',
      )
    })
    .sort()
}

/** The aliases whose program is not in their own family, or whose name is a program itself. */
function strayAliases(families: readonly ProgramFamily[]): string[] {
  const described = (family: ProgramFamily) =>
    new Set([...Object.keys(family.roles ?? {}), ...Object.keys(family.builtins ?? {})])
  const everywhere = new Set(families.flatMap((family) => [...described(family)]))
  return families.flatMap((family) =>
    Object.entries(family.aliases ?? {})
      .filter(([alias, name]) => !described(family).has(name) || everywhere.has(alias))
      .map(([alias, name]) => `${alias} -> ${name}`),
  )
}

/** The programs that two families both describe in one table, as `table: program`. */
function sharedPrograms(families: readonly ProgramFamily[]): string[] {
  return TABLES.flatMap((table) => {
    const names = families.flatMap((family) => Object.keys(family[table] ?? {}))
    return names
      .filter((name, index) => names.indexOf(name) !== index)
      .map((name) => `${table}: ${name}`)
  })
}

describe('program families', () => {
  it('should register every family file, so that no file of rules is left unused', async () => {
    const registered = await import('./program-families.js')
    const source = readFileSync(`${import.meta.dirname}/program-families.ts`, 'utf8')
    const listed = /PROGRAM_FAMILIES[^=]*= \[([^\]]*)\]/.exec(source)?.[1] ?? ''
    expect(
      listed
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)
        .sort(),
    ).toEqual(exportedFamilies())
    expect(registered.PROGRAM_FAMILIES).toHaveLength(exportedFamilies().length)
  })

  it('should describe each program in one family only, since a later family would replace it', () => {
    expect(sharedPrograms(PROGRAM_FAMILIES)).toEqual([])
    const first: ProgramFamily = { roles: { git: { operands: 'read' } } }
    const second: ProgramFamily = { roles: { git: { operands: 'write' } }, valueOptions: {} }
    expect(sharedPrograms([first, second])).toEqual(['roles: git'])
  })

  it('should find every program of every family, and every alias, by its name', () => {
    const withRoles = new Set(programsWithRoles())
    const withBuiltins = new Set(programsWithBuiltinRules())
    const lost = PROGRAM_FAMILIES.flatMap((family) => [
      ...Object.entries(family.roles ?? {})
        .filter(
          ([name, roles]) =>
            !withRoles.has(name) || ('operands' in roles && programRoles(name) !== roles),
        )
        .map(([name]) => `roles: ${name}`),
      ...Object.keys(family.builtins ?? {})
        .filter((name) => !withBuiltins.has(name) || !isCatalogProgram(name))
        .map((name) => `builtins: ${name}`),
      // The tree check reads the operands of a tree reader through its roles.
      ...Object.keys(family.treeReads ?? {})
        .filter((name) => programRoles(name) === undefined)
        .map((name) => `treeReads: ${name}`),
      ...Object.entries(family.aliases ?? {})
        .filter(
          ([alias, name]) => programRoles(alias) !== programRoles(name) || !isCatalogProgram(alias),
        )
        .map(([alias]) => `aliases: ${alias}`),
    ])
    expect(lost).toEqual([])
  })

  it('should give each alias a program of its own family, never the name of another program', () => {
    expect(strayAliases(PROGRAM_FAMILIES)).toEqual([])
    const sed: ProgramFamily = { roles: { sed: { operands: 'read' } } }
    expect(strayAliases([{ ...sed, aliases: { gsed: 'sed' } }])).toEqual([])
    expect(strayAliases([sed, { aliases: { gsed: 'sed' } }])).toEqual(['gsed -> sed'])
    expect(
      strayAliases([sed, { roles: { gsed: { operands: 'read' } }, aliases: { gsed: 'sed' } }]),
    ).toEqual(['gsed -> sed'])
  })
})

console.log('demo')
